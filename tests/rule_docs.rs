//! Every rule has its documentation in `rules/`, with the fixed headings; each documented
//! "Example" triggers the rule, each "Use instead" does not, and for fixable rules, fixing the
//! example yields the "Use instead" text.

use cargo_mcp_lint::diagnostic::Applicability;
use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{self, LintUnit, Overlay, UnitFile};
use cargo_mcp_lint::fix::{self, FixOptions};
use cargo_mcp_lint::rules::{self, internal_error, FixAvailability, RuleMeta, RuleStatus};

mod support;

const HEADINGS: &[&str] = &[
    "## What it does",
    "## Why is this bad",
    "## Example",
    "## Use instead",
    "## Fix safety",
    "## Options",
    "## References",
];

/// The first ```rust block after a heading.
fn code_after(docs: &str, heading: &str) -> Option<String> {
    let section = &docs[docs.find(heading)? + heading.len()..];
    let start = section.find("```rust\n")? + "```rust\n".len();
    let end = section[start..].find("```")?;
    Some(section[start..start + end].to_string())
}

fn unit(path: &Path) -> Vec<LintUnit> {
    vec![support::unit(
        "docs",
        vec![UnitFile {
            owns_directory: false,
            ..support::root_file(path)
        }],
    )]
}

fn diagnostics_with(
    text: &str,
    settings: &Settings,
) -> Vec<cargo_mcp_lint::diagnostic::Diagnostic> {
    let path = PathBuf::from("/docs/example.rs");
    let mut overlay = Overlay::new();
    overlay.insert(path.clone(), text.to_string());
    engine::lint_with(&unit(&path), Path::new("/"), &overlay, settings).diagnostics
}

/// The settings a rule's documented code is linted with: the defaults, in preview mode for a
/// rule in preview (whose documentation shows what it reports when it runs).
fn rule_settings(meta: &RuleMeta) -> Settings {
    let mut settings = Settings::default();
    settings.preview = meta.is_preview();
    settings
}

fn codes_found(text: &str, meta: &RuleMeta) -> Vec<&'static str> {
    diagnostics_with(text, &rule_settings(meta))
        .iter()
        .map(|d| d.code)
        .collect()
}

/// The settings a rule's "Example" is linted with: [`rule_settings`], and for MCP999, which no
/// code triggers, the test hook that makes the analysis of the file panic, to show what the tool
/// reports then.
/// What a rule page says when its Example is of a shape in preview.
const PREVIEW_EXAMPLE: &str = "This example is of a shape in preview: run with `--preview`.";

fn example_settings(meta: &RuleMeta) -> Settings {
    let mut settings = rule_settings(meta);
    if meta.code == internal_error::META.code {
        settings.panic_on_file = Some("example.rs".into());
    }
    // A stable rule whose page shows a preview shape says so.
    if meta.docs.contains(PREVIEW_EXAMPLE) {
        settings.preview = true;
    }
    settings
}

/// Whether the rule's findings in a text carry a fix that `--fix` applies.
fn has_applicable_fix(text: &str, meta: &RuleMeta) -> bool {
    let code = meta.code;
    diagnostics_with(text, &rule_settings(meta))
        .iter()
        .any(|d| {
            d.code == code
                && d.fix
                    .as_ref()
                    .is_some_and(|f| f.applicability != Applicability::DisplayOnly)
        })
}

#[test]
fn every_rule_has_its_documentation_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("rules/ exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = rules::registry()
        .iter()
        .map(|r| format!("{}-{}.md", r.meta().code, r.meta().name))
        .collect();
    expected.sort();
    assert_eq!(
        files, expected,
        "one file per rule in rules/, named CODE-name.md"
    );
    for rule in rules::registry() {
        let m = rule.meta();
        let on_disk =
            std::fs::read_to_string(dir.join(format!("{}-{}.md", m.code, m.name))).expect("read");
        assert_eq!(
            on_disk, m.docs,
            "{}: the embedded docs are the file",
            m.code
        );
        assert!(
            m.docs.starts_with(&format!("# {} `{}`\n", m.code, m.name)),
            "{}: title",
            m.code
        );
        assert!(
            m.docs.contains("\n- Protocol versions: "),
            "{}: the docs say which protocol versions the rule applies to",
            m.code
        );
        assert!(
            m.docs.contains(&format!(
                "- Default severity: {}",
                m.default_severity.as_str()
            )),
            "{}",
            m.code
        );
        assert!(
            m.docs
                .contains(&format!("\n- Status: {}", m.status.as_str())),
            "{}: the docs give the rule's status, `- Status: {}`",
            m.code,
            m.status.as_str()
        );
        if m.status == RuleStatus::Preview {
            // The page says why, and how to turn the rule on.
            for needed in ["## Preview\n", "`--preview`", "`preview = true`", "95%"] {
                assert!(
                    m.docs.contains(needed),
                    "{}: a preview rule's docs say `{needed}`",
                    m.code
                );
            }
        }
        let mut last = 0;
        for heading in HEADINGS {
            let at = m
                .docs
                .find(heading)
                .unwrap_or_else(|| panic!("{}: missing {heading}", m.code));
            assert!(at >= last, "{}: {heading} out of order", m.code);
            last = at;
        }
    }
}

#[test]
fn documented_examples_trigger_and_use_instead_does_not() {
    for rule in rules::registry() {
        let m = rule.meta();
        let example = code_after(m.docs, "## Example")
            .unwrap_or_else(|| panic!("{}: no Example code", m.code));
        let instead = code_after(m.docs, "## Use instead")
            .unwrap_or_else(|| panic!("{}: no Use instead code", m.code));
        assert!(
            diagnostics_with(&example, &example_settings(m))
                .iter()
                .any(|d| d.code == m.code),
            "{}: the Example does not trigger it",
            m.code
        );
        assert!(
            !codes_found(&instead, m).contains(&m.code),
            "{}: the Use instead triggers it",
            m.code
        );

        if m.fix != FixAvailability::None && m.code != "MCP000" {
            let path = PathBuf::from("/docs/example.rs");
            let mut overlay = Overlay::new();
            overlay.insert(path.clone(), example.clone());
            let run = fix::fix_from(
                &unit(&path),
                Path::new("/"),
                FixOptions { unsafe_fixes: true },
                overlay,
                &rule_settings(m),
            );
            let fixed = run
                .files
                .first()
                .map(|f| f.fixed.clone())
                .unwrap_or(example.clone());
            if has_applicable_fix(&example, m) {
                assert_eq!(
                    fixed, instead,
                    "{}: fixing the Example does not give the Use instead",
                    m.code
                );
            } else {
                // Only suggestions: the fixer leaves the Example as it is.
                assert_eq!(
                    fixed, example,
                    "{}: the Example has no applicable fix, yet fixing changed it",
                    m.code
                );
            }
        }
    }
}

/// The README's rule table ("What it finds") lists every registered rule, in order, with its
/// code, name, default severity, fix availability and status as `--list-rules` words them.
#[test]
fn the_readme_rule_table_matches_the_registry() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable");
    let section = readme
        .split("\n## What it finds\n")
        .nth(1)
        .expect("the README has a \"What it finds\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let header = section
        .lines()
        .find(|l| l.starts_with("| code |"))
        .expect("the section has the rule table");
    assert_eq!(header, "| code | name | default | fix | status | what |");
    type Row = (String, String, String, String, String);
    let rows: Vec<Row> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.splitn(7, '|').map(str::trim).collect();
            assert_eq!(cells.len(), 7, "a row with six cells: {l}");
            (
                cells[1].trim_matches('`').to_string(),
                cells[2].trim_matches('`').to_string(),
                cells[3].to_string(),
                cells[4].to_string(),
                cells[5].to_string(),
            )
        })
        .collect();
    let expected: Vec<Row> = rules::registry()
        .iter()
        .map(|r| {
            let m = r.meta();
            let fix = match m.fix {
                FixAvailability::None => "no",
                FixAvailability::Sometimes => "sometimes",
                FixAvailability::Always => "yes",
            };
            (
                m.code.to_string(),
                m.name.to_string(),
                m.default_severity.as_str().to_string(),
                fix.to_string(),
                m.status.as_str().to_string(),
            )
        })
        .collect();
    assert_eq!(rows, expected, "README's rule table against the registry");
}
