//! MCP999 end to end: a panic while analysing one file is reported as an internal error at that
//! file, every other file is still linted, the exit status is 2 whatever `--exit-zero`, levels or
//! suppressions say, and stderr carries no runtime panic text.
//!
//! The panic comes from the test hook `CARGO_MCP_LINT_TEST_PANIC=<file name>`, which only debug
//! builds of the binary read (those `cargo test` builds): under `cargo test --release` these tests
//! are ignored.

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

const BUGGY: &str = r#"pub fn dispatch(method: &str, id: u64, out: &Sender<Value>) {
    if method == "notifications/cancelled" {
        let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "cancelled"}}));
    }
}
"#;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn lint(dir: &Path, panic_on: Option<&str>, args: &[&str]) -> Run {
    let mut command = Command::cargo_bin("cargo-mcp-lint").expect("binary is built");
    command
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("CARGO_MCP_LINT_TEST_PANIC")
        .env("RUST_BACKTRACE", "1");
    if let Some(name) = panic_on {
        command.env("CARGO_MCP_LINT_TEST_PANIC", name);
    }
    let output = command.output().expect("binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Two buggy files, `boom.rs` and `server.rs`.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("boom.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    dir
}

fn codes_by_file(json: &serde_json::Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

fn assert_quiet_stderr(run: &Run) {
    for noise in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "internal error in",
    ] {
        assert!(
            !run.stderr.contains(noise),
            "no runtime panic text on stderr ({noise}):\n{}",
            run.stderr
        );
    }
    assert!(
        run.stderr.contains(
            "error: cargo-mcp-lint failed on 1 file because of an internal error (MCP999: boom.rs)"
        ),
        "{}",
        run.stderr
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the test hook exists only in debug builds"
)]
fn a_panic_in_one_file_is_an_internal_error_and_the_others_are_still_linted() {
    let dir = tree();
    let clean = lint(dir.path(), None, &[".", "--no-cache", "--format", "json"]);
    assert_eq!(clean.code, 1, "{}", clean.stderr);
    let json: serde_json::Value = serde_json::from_str(&clean.stdout).expect("JSON");
    assert_eq!(
        codes_by_file(&json),
        [
            ("boom.rs".to_string(), "MCP001".to_string()),
            ("server.rs".to_string(), "MCP001".to_string())
        ]
    );

    let run = lint(
        dir.path(),
        Some("boom.rs"),
        &[".", "--no-cache", "--format", "json"],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        codes_by_file(&json),
        [
            ("boom.rs".to_string(), "MCP999".to_string()),
            ("server.rs".to_string(), "MCP001".to_string())
        ],
        "{}",
        run.stdout
    );
    let internal = &json["diagnostics"][0];
    assert_eq!(internal["name"], "internal-error");
    assert_eq!(internal["severity"], "error");
    assert!(internal["fix"].is_null());
    let text = internal.to_string();
    for wanted in [
        "failed while analysing this file",
        "not a problem in your code",
        "the other files were still linted",
        "the test hook made the analysis of `boom.rs` panic",
        "with this file attached",
        concat!("cargo-mcp-lint ", env!("CARGO_PKG_VERSION")),
    ] {
        assert!(text.contains(wanted), "{wanted}: {text}");
    }
    assert_quiet_stderr(&run);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the test hook exists only in debug builds"
)]
fn an_internal_error_exits_2_whatever_exit_zero_levels_or_suppressions_say() {
    let dir = tree();
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        "[rules]\nMCP999 = \"allow\"\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("boom.rs"),
        format!("// mcp-lint: allow-file(MCP999) -- hide it\n{BUGGY}"),
    )
    .expect("write");
    for args in [
        &[".", "--no-cache", "--exit-zero", "--color", "never"][..],
        // (`-A all` would turn every rule off, and a run with no rule on parses nothing.)
        &[".", "--no-cache", "-A", "MCP999", "--color", "never"][..],
        &[".", "--no-cache", "--statistics"][..],
    ] {
        let run = lint(dir.path(), Some("boom.rs"), args);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("MCP999"), "{args:?}: {}", run.stdout);
        assert_quiet_stderr(&run);
    }
    let run = lint(
        dir.path(),
        Some("boom.rs"),
        &[".", "--no-cache", "--exit-zero", "--color", "never"],
    );
    assert!(run.stdout.contains("error[MCP999]"), "{}", run.stdout);
    // Without the hook, the same tree and flags exit 0.
    let run = lint(dir.path(), None, &[".", "--no-cache", "--exit-zero"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the test hook exists only in debug builds"
)]
fn a_baseline_is_not_written_when_a_file_failed() {
    let dir = tree();
    let baseline = dir.path().join("baseline.json");
    let run = lint(
        dir.path(),
        Some("boom.rs"),
        &[".", "--no-cache", "--write-baseline", "baseline.json"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!baseline.exists(), "no baseline is written");
    assert_quiet_stderr(&run);
}

/// Nothing in the linted tree sets the hook: the configuration has no key for it.
#[test]
fn the_configuration_cannot_set_the_test_hook() {
    let dir = tree();
    for key in ["panic-on-file", "panic_on_file"] {
        std::fs::write(
            dir.path().join("mcp-lint.toml"),
            format!("{key} = \"boom.rs\"\n"),
        )
        .expect("write");
        let run = lint(dir.path(), None, &[".", "--no-cache"]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("unknown field"), "{}", run.stderr);
    }
}
