//! The project lints its own source clean: cargo mcp-lint, run in cargo mode on this package,
//! reports nothing. Its source names MCP's methods, error codes and message shapes everywhere
//! (as data to recognise, not as a server), so a rule that judges code by the words in it fails
//! here first.

mod support;

#[test]
fn cargo_mcp_lint_on_its_own_source_reports_nothing() {
    let output = support::run_ok(
        std::process::Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["--no-cache", "--format", "concise"]),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.trim().is_empty(),
        "findings on its own source:\n{stdout}"
    );
}
