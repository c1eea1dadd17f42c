//! Every output format on real findings (the example server), the SARIF output validated
//! against the official SARIF 2.1.0 schema, and the GitHub annotation escaping.

use std::path::PathBuf;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use cargo_mcp_lint::diagnostic::{Diagnostic, Severity};
use cargo_mcp_lint::engine::LintResult;
use cargo_mcp_lint::output::{Format, Report};
use cargo_mcp_lint::source::{ByteSpan, SourceFile, SourceMap};

mod support;

fn run_on_example(args: &[&str]) -> (i32, String) {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary is built")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["examples/seed-server", "--preview"])
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("binary runs");
    let code = output.status.code().unwrap_or(-1);
    assert!(
        matches!(code, 0 | 1),
        "cargo-mcp-lint {args:?} exited with {code}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (code, String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let (code, stdout) = run_on_example(&["--format", "sarif"]);
    assert_eq!(code, 1);
    let sarif: serde_json::Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    let validator = jsonschema::options()
        .should_validate_formats(false)
        .build(&support::sarif_schema())
        .expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The validator does reject what is not SARIF 2.1.0.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(!validator.is_valid(&broken));

    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "cargo-mcp-lint");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 6);
    for result in results {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .expect("uri");
        assert!(uri.starts_with("examples/seed-server/src/"), "{uri}");
        assert!(result["partialFingerprints"]["mcpLintFingerprint/v1"].is_string());
    }
    // The helper-mediated send carries the chain as related locations.
    assert!(results.iter().any(|r| r["relatedLocations"]
        .as_array()
        .is_some_and(|l| l.len() == 2)));
}

#[test]
fn sarif_fingerprints_are_stable_across_runs() {
    let (_, first) = run_on_example(&["--format", "sarif"]);
    let (_, second) = run_on_example(&["--format", "sarif"]);
    assert_eq!(first, second);
}

#[test]
fn github_annotations() {
    let (code, stdout) = run_on_example(&["--format", "github"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(stdout);
}

#[test]
fn json_lines() {
    let (code, stdout) = run_on_example(&["--format", "json-lines"]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines.iter().filter(|d| d["code"] == "MCP001").count(), 3);
    assert!(lines.iter().all(|d| d["span"]["start"]["line"].is_u64()));
}

#[test]
fn gitlab_code_quality() {
    let (code, stdout) = run_on_example(&["--format", "gitlab"]);
    assert_eq!(code, 1);
    let issues: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    insta::assert_json_snapshot!(issues);
}

#[test]
fn junit() {
    let (code, stdout) = run_on_example(&["--format", "junit"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(stdout);
}

#[test]
fn output_file_gets_the_format_and_the_terminal_gets_the_human_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("report.sarif");
    let (code, stdout) = run_on_example(&[
        "--format",
        "sarif",
        "--output-file",
        file.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1);
    assert!(stdout.contains("error[MCP001]"), "{stdout}");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("written")).expect("SARIF");
    assert_eq!(sarif["version"], "2.1.0");
}

#[test]
fn under_github_actions_the_human_report_and_annotations_both_print() {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["examples/seed-server", "--preview", "--color", "never"])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("error[MCP001]"), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("::error ")).count(),
        5,
        "{stdout}"
    );
}

#[test]
fn github_escaping_cannot_be_forged() {
    let mut sources = SourceMap::default();
    let text = "fn f() {}\n".to_string();
    let file = sources.add(SourceFile::new(
        PathBuf::from("dir,x/a:b.rs"),
        "dir,x/a:b.rs".into(),
        text,
    ));
    let diagnostic = Diagnostic {
        code: "MCP001",
        name: "cancel-sends-response",
        severity: Severity::Error,
        message: "a, b: c 100%\n::error file=forged.rs::owned\r".into(),
        file,
        span: ByteSpan::new(3, 4),
        labels: Vec::new(),
        notes: Vec::new(),
        help: None,
        fix: None,
        context: None,
    };
    let result = LintResult {
        sources,
        diagnostics: vec![diagnostic],
    };
    let mut out = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
    Format::Github
        .emitter()
        .emit(
            &Report {
                result: &result,
                root: None,
            },
            &mut out,
        )
        .expect("written");
    let text = String::from_utf8(out.into_inner()).expect("utf-8");
    assert_eq!(
        text,
        "::error file=dir%2Cx/a%3Ab.rs,line=1,col=4,endLine=1,endColumn=5,title=MCP001 cancel-sends-response::a, b: c 100%25\\n::error file=forged.rs::owned\\r\n"
    );
    assert_eq!(
        text.lines().count(),
        1,
        "one command, whatever the message holds"
    );
}
