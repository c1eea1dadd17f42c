//! SDK awareness: the same tool, returning `Err(..)` from a `ct.cancelled()` arm, is an error
//! under the lockfiles of SDKs that send a handler's value for a cancelled request, and is not
//! reported under those that drop it.

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

const TOOL: &str = r#"use rmcp::model::{CallToolResult, ErrorData as McpError};
use tokio_util::sync::CancellationToken;

pub struct Search;

impl Search {
    #[tool(description = "slow search")]
    async fn search(&self, ct: CancellationToken) -> Result<CallToolResult, McpError> {
        tokio::select! {
            _ = ct.cancelled() => Err(McpError::internal_error("cancelled", None)),
            hits = crate::index::search() => Ok(CallToolResult::success(hits)),
        }
    }
}
"#;

fn project(dependency: &str, lock: Option<(&str, &str)>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!("[package]\nname = \"server\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{dependency}\n"),
    )
    .expect("write");
    if let Some((name, version)) = lock {
        std::fs::write(
            dir.path().join("Cargo.lock"),
            format!(
                "version = 4\n\n[[package]]\nname = \"{name}\"\nversion = \"{version}\"\n\n[[package]]\nname = \"server\"\nversion = \"0.1.0\"\n"
            ),
        )
        .expect("write");
    }
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/tools.rs"), TOOL).expect("write");
    dir
}

fn lint_json(dir: &Path) -> (i32, serde_json::Value) {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir)
        .args(["src", "--format", "json"])
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        serde_json::from_slice(&output.stdout).expect("json"),
    )
}

fn findings(json: &serde_json::Value) -> Vec<&serde_json::Value> {
    json["diagnostics"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

#[test]
fn reported_where_the_sdk_sends_the_value() {
    for (dependency, lock, sdk) in [
        ("rmcp = \"2.1\"", ("rmcp", "2.1.0"), "rmcp 2.1.0"),
        ("pmcp = \"2\"", ("pmcp", "2.23.0"), "pmcp 2.23.0"),
        (
            "rust-mcp-sdk = \"2\"",
            ("rust-mcp-sdk", "2.0.0"),
            "rust-mcp-sdk 2.0.0",
        ),
    ] {
        let dir = project(dependency, Some(lock));
        let (code, json) = lint_json(dir.path());
        assert_eq!(code, 1, "{sdk}: {json}");
        let found = findings(&json);
        assert_eq!(found.len(), 1, "{sdk}: {json}");
        assert_eq!(found[0]["severity"], "error");
        assert_eq!(
            found[0]["span"]["start"]["line"], 10,
            "{sdk}: the Err(..) on the cancel arm"
        );
        assert!(
            found[0]["message"].as_str().unwrap_or("").contains(sdk),
            "{sdk}: {json}"
        );
        let notes = found[0]["notes"].to_string();
        assert!(notes.contains("assumed from Cargo.lock"), "{sdk}: {notes}");
    }
}

#[test]
fn not_reported_where_the_sdk_drops_it() {
    for (dependency, lock) in [
        ("rmcp = \"2.2\"", ("rmcp", "2.2.0")),
        ("rmcp = \"3\"", ("rmcp", "3.11.0")),
        (
            "turbomcp = \"4.0.0-alpha.5\"",
            ("turbomcp", "4.0.0-alpha.5"),
        ),
    ] {
        let dir = project(dependency, Some(lock));
        let (code, json) = lint_json(dir.path());
        assert_eq!(code, 0, "{dependency}: {json}");
        assert!(findings(&json).is_empty(), "{dependency}: {json}");
    }
}

#[test]
fn without_a_lockfile_the_requirement_decides_and_without_an_sdk_nothing_is_assumed() {
    let dir = project(
        "rmcp = { version = \"2.1.0\", features = [\"server\"] }",
        None,
    );
    let (code, json) = lint_json(dir.path());
    assert_eq!(code, 1, "{json}");
    assert!(findings(&json)[0]["notes"]
        .to_string()
        .contains("assumed from Cargo.toml"));

    let renamed = project(
        "mcp = { package = \"rmcp\", version = \"2.2\" }",
        Some(("rmcp", "2.2.5")),
    );
    let (code, _) = lint_json(renamed.path());
    assert_eq!(code, 0, "a renamed dependency is still the SDK");

    let none = project("serde = \"1\"", None);
    let (code, _) = lint_json(none.path());
    assert_eq!(
        code, 0,
        "hand-rolled: shape B is left to the code's own dispatcher"
    );
}

#[test]
fn the_configuration_names_the_sdk() {
    let dir = project("rmcp = \"3\"", Some(("rmcp", "3.11.0")));
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        "sdk = { name = \"rmcp\", version = \"2.1.0\" }\n",
    )
    .expect("write");
    let (code, json) = lint_json(dir.path());
    assert_eq!(code, 1, "{json}");
    assert!(findings(&json)[0]["notes"]
        .to_string()
        .contains("assumed from configuration"));
}

#[test]
fn further_messages_are_warnings_when_only_2025_11_25_is_targeted() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("server.rs"),
        "async fn call_tool(ct: CancellationToken, peer: Peer) {\n    ct.cancelled().await;\n    peer.notify_progress(progress).await;\n}\n",
    )
    .expect("write");
    let lint = |dir: &Path| {
        let output = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(dir)
            .args(["server.rs", "--format", "json"])
            .output()
            .expect("runs");
        serde_json::from_slice::<serde_json::Value>(&output.stdout).expect("json")
    };
    assert_eq!(lint(dir.path())["diagnostics"][0]["severity"], "error");
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        "protocol-versions = [\"2025-11-25\"]\n",
    )
    .expect("write");
    assert_eq!(lint(dir.path())["diagnostics"][0]["severity"], "warning");
}

#[test]
fn the_protocol_version_flag_overrides_the_configuration() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("server.rs"),
        "async fn call_tool(ct: CancellationToken, peer: Peer) {\n    ct.cancelled().await;\n    peer.notify_progress(progress).await;\n}\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        "protocol-versions = [\"2026-07-28\"]\n",
    )
    .expect("write");
    let severity = |args: &[&str]| {
        let output = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(dir.path())
            .args(["server.rs", "--format", "json"])
            .args(args)
            .output()
            .expect("runs");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        json["diagnostics"][0]["severity"].clone()
    };
    assert_eq!(severity(&[]), "error");
    assert_eq!(severity(&["--protocol-version", "2025-11-25"]), "warning");
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir.path())
        .args(["server.rs", "--protocol-version", "2024-01-01"])
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(2),
        "an unknown version is a usage error"
    );
}
