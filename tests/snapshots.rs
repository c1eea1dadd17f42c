//! Snapshot tests of every output format on the example server's real findings.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

fn run_on_example(format: &str) -> (i32, String) {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary is built")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "examples/seed-server",
            // MCP002, one of the planted bugs, is in preview (docs/ecosystem.md).
            "--preview",
            "--color",
            "never",
            "--format",
            format,
        ])
        .output()
        .expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn human_output() {
    let (code, stdout) = run_on_example("human");
    assert_eq!(code, 1);
    insta::assert_snapshot!(stdout);
}

#[test]
fn concise_output() {
    let (code, stdout) = run_on_example("concise");
    assert_eq!(code, 1);
    insta::assert_snapshot!(stdout);
}

#[test]
fn json_output() {
    let (code, stdout) = run_on_example("json");
    assert_eq!(code, 1);
    let value: serde_json::Value =
        serde_json::from_str(&stdout).expect("stdout is one JSON object");
    assert_eq!(value["version"], 1);
    assert_eq!(value["tool"]["name"], "cargo-mcp-lint");
    assert_eq!(value["summary"]["diagnostics"], 6);
    insta::assert_json_snapshot!(value, {".tool.version" => "[version]"});
}
