//! End-to-end tests of the binary, as a user (and cargo) runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use tempfile::TempDir;

mod support;

const BUGGY: &str = r#"
pub fn dispatch(method: &str, id: u64, out: &Sender<Value>) {
    match method {
        "notifications/cancelled" => {
            let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "cancelled"}}));
        }
        _ => {}
    }
}
"#;

const CLEAN: &str = r#"
pub fn dispatch(method: &str, id: u64, out: &Sender<Value>) {
    match method {
        "tools/list" => {
            let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}));
        }
        _ => {}
    }
}
"#;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("create dirs");
    std::fs::write(path, text).expect("write file");
}

fn package(root: &Path, dir: &str, name: &str) {
    write(
        root,
        &format!("{dir}/Cargo.toml"),
        &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
    );
}

/// A workspace with a buggy package `server` (bug reached through `mod handlers;`, plus an
/// orphan file no target reaches) and a clean package `client`.
fn workspace() -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"server\", \"client\"]\nresolver = \"2\"\n",
    );
    package(root, "server", "server");
    write(root, "server/src/lib.rs", "mod handlers;\n");
    write(root, "server/src/handlers.rs", BUGGY);
    write(root, "server/src/orphan.rs", BUGGY);
    package(root, "client", "client");
    write(root, "client/src/lib.rs", CLEAN);
    dir
}

fn lint(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary is built")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn concise_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.contains("[MCP")).collect()
}

#[test]
fn cargo_mode_lints_the_module_tree_of_the_workspace() {
    let ws = workspace();
    let (code, stdout, stderr) = lint(ws.path(), &["--format", "concise"]);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let lines = concise_lines(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].starts_with("server/src/handlers.rs:5:21: error[MCP001] [cancel-sends-response]"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("orphan.rs"),
        "files no target reaches are not linted: {stdout}"
    );
}

#[test]
fn cargo_subcommand_mode_strips_the_subcommand_name() {
    let ws = workspace();
    let (code, stdout, stderr) = lint(ws.path(), &["mcp-lint", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(concise_lines(&stdout).len(), 1, "{stdout}");
}

#[test]
fn package_selection_follows_cargo() {
    let ws = workspace();
    let (code, stdout, stderr) = lint(ws.path(), &["-p", "client"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("No problems found"), "{stdout}");

    let (code, _, stderr) = lint(ws.path(), &["-p", "server", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");

    let (code, _, stderr) = lint(ws.path(), &["--workspace", "--exclude", "server"]);
    assert_eq!(code, 0, "{stderr}");

    // Inside a member's directory, only that member is linted, as cargo does.
    let (code, _, stderr) = lint(&ws.path().join("client"), &[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = lint(&ws.path().join("server/src"), &["--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");

    let (code, _, stderr) = lint(ws.path(), &["-p", "nonexistent"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("package `nonexistent`"), "{stderr}");
}

#[test]
fn manifest_path_selects_the_package() {
    let ws = workspace();
    let outside = tempfile::tempdir().expect("temp dir");
    let manifest = ws.path().join("client/Cargo.toml");
    let (code, _, stderr) = lint(
        outside.path(),
        &["--manifest-path", manifest.to_str().expect("utf-8")],
    );
    assert_eq!(code, 0, "{stderr}");
    let manifest = ws.path().join("server/Cargo.toml");
    let (code, stdout, stderr) = lint(
        outside.path(),
        &[
            "--manifest-path",
            manifest.to_str().expect("utf-8"),
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(concise_lines(&stdout).len(), 1, "{stdout}");

    let (code, _, stderr) = lint(outside.path(), &["--manifest-path", "missing/Cargo.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn path_mode_lints_every_rust_file_under_a_directory() {
    let ws = workspace();
    let (code, stdout, stderr) = lint(ws.path(), &["server/src", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    let lines = concise_lines(&stdout);
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("server/src/handlers.rs:"), "{stdout}");
    assert!(lines[1].starts_with("server/src/orphan.rs:"), "{stdout}");

    let (code, _, stderr) = lint(ws.path(), &["client"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn path_mode_honours_gitignore_and_skips_target() {
    let ws = workspace();
    write(ws.path(), "server/.gitignore", "ignored.rs\n");
    write(ws.path(), "server/src/ignored.rs", BUGGY);
    write(ws.path(), "server/target/debug/build/generated.rs", BUGGY);
    let (_, stdout, _) = lint(ws.path(), &["server", "--format", "concise"]);
    assert!(!stdout.contains("ignored.rs"), "{stdout}");
    assert!(!stdout.contains("generated.rs"), "{stdout}");
    assert!(stdout.contains("handlers.rs"), "{stdout}");
}

#[test]
fn exit_statuses() {
    let ws = workspace();
    let (code, _, _) = lint(ws.path(), &["--exit-zero"]);
    assert_eq!(code, 0, "--exit-zero");
    let (code, _, stderr) = lint(ws.path(), &["--no-such-flag"]);
    assert_eq!(code, 2, "bad flag: {stderr}");
    let (code, _, stderr) = lint(ws.path(), &["does/not/exist"]);
    assert_eq!(code, 2, "missing path");
    assert!(stderr.contains("does/not/exist"), "{stderr}");
    let (code, _, stderr) = lint(ws.path(), &["--exclude", "server"]);
    assert_eq!(code, 2, "--exclude without --workspace: {stderr}");
    let (code, stdout, stderr) = lint(ws.path(), &["--help"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Exit status"),
        "--help documents exit statuses"
    );

    let empty = tempfile::tempdir().expect("temp dir");
    let (code, _, stderr) = lint(empty.path(), &[]);
    assert_eq!(code, 2, "no Cargo.toml: {stderr}");
    assert!(stderr.contains("could not find `Cargo.toml`"), "{stderr}");
}

#[test]
fn fail_on_error_lets_warnings_pass() {
    let ws = workspace();
    let (code, _, stderr) = lint(ws.path(), &["--fail-on", "error"]);
    assert_eq!(code, 1, "an error fails: {stderr}");
    let (code, stdout, stderr) = lint(ws.path(), &["--fail-on", "error", "-W", "MCP001"]);
    assert_eq!(code, 0, "warnings only pass: {stderr}");
    assert!(
        stdout.contains("warning[MCP001]"),
        "and are shown: {stdout}"
    );
    let (code, _, _) = lint(ws.path(), &["-W", "MCP001"]);
    assert_eq!(code, 1, "by default a warning fails");
    let (code, _, stderr) = lint(ws.path(), &["--fail-on", "note"]);
    assert_eq!(code, 2, "an unknown level: {stderr}");

    // The configuration's key, which the command line overrides.
    write(
        ws.path(),
        "mcp-lint.toml",
        "fail-on = \"error\"\n\n[rules]\nMCP001 = \"warn\"\n",
    );
    let (code, _, stderr) = lint(ws.path(), &[]);
    assert_eq!(code, 0, "fail-on = \"error\": {stderr}");
    let (code, _, _) = lint(ws.path(), &["--fail-on", "warning"]);
    assert_eq!(code, 1, "--fail-on warning overrides the configuration");
    let (code, stdout, _) = lint(ws.path(), &["--show-settings"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("fail-on = \"error\""), "{stdout}");
}

/// Runs the binary with its own user cache directory and no `CARGO_TARGET_DIR` but `target`.
fn lint_caching(dir: &Path, args: &[&str], cache: &Path, target: Option<&Path>) -> i32 {
    let mut command = Command::cargo_bin("cargo-mcp-lint").expect("binary is built");
    command
        .current_dir(dir)
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .env_remove("CARGO_TARGET_DIR");
    if let Some(target) = target {
        command.env("CARGO_TARGET_DIR", target);
    }
    command
        .output()
        .expect("binary runs")
        .status
        .code()
        .unwrap_or(-1)
}

#[test]
fn the_cache_goes_to_the_workspace_target_or_the_user_cache_never_the_current_directory() {
    let cache = tempfile::tempdir().expect("temp dir");
    let facts = |dir: &Path| dir.join("mcp-lint").join("facts-v7.bin");

    // Path mode inside a workspace, run from a member's source directory: the workspace's
    // target directory, not `server/src/target`.
    let ws = workspace();
    let src = ws.path().join("server/src");
    assert_eq!(lint_caching(&src, &["handlers.rs"], cache.path(), None), 1);
    assert!(facts(&ws.path().join("target")).is_file());
    assert!(!src.join("target").exists());
    assert!(!ws.path().join("server/target").exists());

    // Cargo mode honours CARGO_TARGET_DIR.
    let elsewhere = tempfile::tempdir().expect("temp dir");
    assert_eq!(
        lint_caching(ws.path(), &[], cache.path(), Some(elsewhere.path())),
        1
    );
    assert!(facts(elsewhere.path()).is_file());

    // Outside any cargo project: nothing is written where it runs; the user's cache directory
    // holds it.
    let loose = tempfile::tempdir().expect("temp dir");
    write(loose.path(), "notes/server.rs", BUGGY);
    assert_eq!(
        lint_caching(loose.path(), &["notes"], cache.path(), None),
        1
    );
    assert!(!loose.path().join("target").exists());
    let stored = cache.path().join("cargo-mcp-lint").join("facts");
    let entries: Vec<_> = std::fs::read_dir(&stored)
        .expect("the user cache holds the facts")
        .flatten()
        .collect();
    assert_eq!(entries.len(), 1);
    assert!(entries[0].path().join("facts-v7.bin").is_file());
}

#[test]
fn a_named_path_that_is_not_rust_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "notes.txt", "not rust\n");
    write(dir.path(), "server.rs", CLEAN);
    let (code, stdout, stderr) = lint(dir.path(), &["notes.txt"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("`notes.txt` is not a Rust file (`.rs`) or a directory"),
        "{stderr}"
    );
    assert!(!stdout.contains("No problems"), "{stdout}");
    let (code, _, stderr) = lint(dir.path(), &["server.rs"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn flags_that_need_fix_are_an_error_without_it() {
    let ws = workspace();
    for flag in [
        "--unsafe-fixes",
        "--allow-dirty",
        "--allow-staged",
        "--allow-no-vcs",
        "--exit-non-zero-on-fix",
    ] {
        let (code, _, stderr) = lint(ws.path(), &[flag]);
        assert_eq!(code, 2, "{flag} alone: {stderr}");
        assert!(stderr.contains("--fix"), "{flag}: {stderr}");
    }
    // --unsafe-fixes also goes with --diff.
    let (code, _, stderr) = lint(ws.path(), &["--diff", "--unsafe-fixes"]);
    assert_eq!(code, 1, "{stderr}");
}

#[test]
fn cargo_mode_lints_a_repository_pinning_a_toolchain_that_does_not_exist() {
    let ws = workspace();
    write(
        ws.path(),
        "rust-toolchain.toml",
        "[toolchain]\nchannel = \"0.0.1-no-such-toolchain\"\n",
    );
    let (code, stdout, stderr) = lint(ws.path(), &["--workspace", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("server/src/handlers.rs:5:21: error[MCP001]"),
        "{stdout}{stderr}"
    );
}

/// A binary or example whose root file uses a crate its package does not depend on cannot be
/// built, so it never runs: it is not linted, and a warning says why (batch 45's ryht: examples
/// importing `mcp_server::prelude::*` in a package whose library is `mcp_sdk`). A crate the
/// package has (`serde_json`), under a rename, its own library's name, or a name a dependency's
/// name holds (its library may be named so) is no such crate.
#[test]
fn a_target_that_uses_a_crate_its_package_lacks_is_not_linted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[package]\nname = \"my-sdk\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde_json = \"1\"\njson = { package = \"serde_json\", version = \"1\" }\nprettytable-rs = \"0.10\"\n",
    );
    write(root, "src/lib.rs", "pub mod prelude {}\n");
    let uses = |first: &str| {
        format!(
            "use {first};\nuse std::sync::mpsc::Sender;\nuse serde_json::{{json, Value}};\n{BUGGY}"
        )
    };
    write(root, "examples/broken.rs", &uses("other_sdk::prelude::*"));
    write(root, "examples/renamed.rs", &uses("json as _"));
    write(root, "examples/own.rs", &uses("my_sdk::prelude::*"));
    // A dependency whose library has another name than its package (`prettytable-rs` is
    // `prettytable`): the manifest does not say which, so the target may build.
    write(
        root,
        "examples/table.rs",
        &format!(
            "#[macro_use]\nextern crate prettytable;\n{}",
            uses("prettytable::Table")
        ),
    );
    let (code, stdout, stderr) = lint(root, &["--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let mut lines = concise_lines(&stdout);
    lines.sort();
    assert_eq!(lines.len(), 3, "{stdout}{stderr}");
    assert!(lines[0].starts_with("examples/own.rs:"), "{stdout}");
    assert!(lines[1].starts_with("examples/renamed.rs:"), "{stdout}");
    assert!(lines[2].starts_with("examples/table.rs:"), "{stdout}");
    assert!(
        stderr.contains("`broken` of package `my-sdk` uses crate `other_sdk`, which the package does not depend on: it cannot be built, so it was not linted"),
        "{stderr}"
    );
}

#[test]
fn cargo_mode_reads_the_manifests_when_cargo_metadata_fails() {
    // A member with a path dependency outside the checkout (cargo metadata fails on it), a
    // members glob, a member inheriting its edition, an example found as cargo finds it, and
    // default members.
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\ndefault-members = [\"crates/server\"]\nresolver = \"2\"\n\n[workspace.package]\nedition = \"2021\"\n",
    );
    write(
        root,
        "crates/server/Cargo.toml",
        "[package]\nname = \"server\"\nversion = \"0.1.0\"\nedition.workspace = true\n\n[dependencies]\nshared = { path = \"../../../outside-the-checkout\" }\n",
    );
    write(root, "crates/server/src/lib.rs", "mod handlers;\n");
    write(root, "crates/server/src/handlers.rs", BUGGY);
    write(root, "crates/server/examples/demo.rs", BUGGY);
    package(root, "crates/client", "client");
    write(root, "crates/client/src/main.rs", BUGGY);

    let (code, stdout, stderr) = lint(root, &["--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let mut lines = concise_lines(&stdout);
    lines.sort();
    assert_eq!(lines.len(), 2, "the default member's targets: {stdout}");
    assert!(lines[0].starts_with("crates/server/examples/demo.rs:5:21: error[MCP001]"));
    assert!(lines[1].starts_with("crates/server/src/handlers.rs:5:21: error[MCP001]"));
    // Said once, with cargo's error as cargo printed it: on lines of their own, indented.
    assert!(
        stderr.starts_with("warning: `cargo metadata` failed:\n  "),
        "{stderr}"
    );
    assert!(
        stderr.contains("so the workspace was read from its manifests instead"),
        "{stderr}"
    );
    assert!(
        stderr.lines().filter(|l| l.starts_with("  ")).count() >= 2,
        "{stderr}"
    );

    let (code, stdout, _) = lint(root, &["--workspace", "--format", "concise"]);
    assert_eq!(code, 1);
    assert_eq!(concise_lines(&stdout).len(), 3, "every member: {stdout}");
    let (code, stdout, _) = lint(root, &["-p", "client", "--format", "concise"]);
    assert_eq!(code, 1);
    let lines = concise_lines(&stdout);
    assert!(
        lines.len() == 1 && lines[0].starts_with("crates/client/src/main.rs"),
        "{stdout}"
    );

    // A manifest that cannot be read either: a finding on its own line; the rest is linted.
    write(
        root,
        "crates/server/Cargo.toml",
        "[package]\nname = \"server\"\nversion = 0.1.0\"\n",
    );
    let (code, stdout, stderr) = lint(root, &["--workspace", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    let lines = concise_lines(&stdout);
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("crates/client/src/main.rs:5:21: error[MCP001]"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with(
            "crates/server/Cargo.toml:3:14: error[MCP000] [syntax-error] this manifest could not be read ("
        ),
        "{stdout}"
    );
    let (code, stdout, _) = lint(root, &["--workspace"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("3 │ version = 0.1.0\""),
        "the manifest's line is shown: {stdout}"
    );
}

#[test]
fn module_tree_follows_rustc_rules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    package(root, ".", "tree");
    write(
        root,
        "src/lib.rs",
        "mod flat;\nmod nested;\n#[path = \"elsewhere/renamed.rs\"]\nmod renamed;\n#[cfg(feature = \"never\")]\nmod gated;\nmod inline {\n    mod inner;\n}\n",
    );
    write(root, "src/flat.rs", &format!("mod child;\n{BUGGY}"));
    write(root, "src/flat/child.rs", BUGGY);
    write(root, "src/nested/mod.rs", &format!("mod deeper;\n{BUGGY}"));
    write(root, "src/nested/deeper.rs", BUGGY);
    write(root, "src/elsewhere/renamed.rs", BUGGY);
    write(root, "src/gated.rs", BUGGY);
    write(root, "src/inline/inner.rs", BUGGY);
    write(root, "src/main.rs", "fn main() {}\n");
    write(root, "examples/demo.rs", BUGGY);
    // Test and bench targets are test code, which no rule judges: linted only with
    // --all-targets, where what shows they were read is a syntax error.
    let broken = format!("{BUGGY}\nfn broken( {{\n");
    write(root, "tests/it.rs", &broken);
    write(root, "benches/b.rs", &broken);
    write(root, "src/unreached.rs", BUGGY);
    let product = [
        "examples/demo.rs",
        "src/elsewhere/renamed.rs",
        "src/flat.rs",
        "src/flat/child.rs",
        "src/gated.rs",
        "src/inline/inner.rs",
        "src/nested/deeper.rs",
        "src/nested/mod.rs",
    ];
    for (args, tests) in [
        (&["--format", "concise"][..], &[][..]),
        (
            &["--format", "concise", "--all-targets"][..],
            &["benches/b.rs", "tests/it.rs"][..],
        ),
    ] {
        let (code, stdout, stderr) = lint(root, args);
        assert_eq!(code, 1, "{stderr}");
        let mut files: Vec<&str> = concise_lines(&stdout)
            .iter()
            .map(|l| l.split(':').next().unwrap_or(""))
            .collect();
        files.sort();
        let mut expected: Vec<&str> = product.iter().chain(tests).copied().collect();
        expected.sort();
        assert_eq!(files, expected, "{args:?}: {stdout}");
    }
}

/// A helper of an integration test: code 0 is a finding (MCP006, in preview since batches 120
/// and 121: the test runs in preview mode) in product code, none in test code.
const TEST_HELPER: &str = "use rmcp::model::{ErrorCode, ErrorData};\n\nfn cancelled_error() -> ErrorData {\n    ErrorData::new(ErrorCode(0), \"Request cancelled\", None)\n}\n\n#[test]\nfn mock_answers_cancel() {\n    let _ = cancelled_error();\n}\n";

#[test]
fn test_targets_are_linted_only_when_asked_for_or_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    package(root, ".", "tested");
    write(root, "src/lib.rs", "pub fn ok() {}\n");
    write(
        root,
        "tests/cancel.rs",
        &format!("mod common;\n{TEST_HELPER}"),
    );
    write(root, "tests/common/mod.rs", TEST_HELPER);
    let found = |args: &[&str]| {
        let (_, stdout, stderr) = lint(root, args);
        let mut files: Vec<String> = concise_lines(&stdout)
            .iter()
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect();
        files.sort();
        (files, stderr)
    };
    let none: Vec<String> = Vec::new();
    let both = vec![
        "tests/cancel.rs".to_string(),
        "tests/common/mod.rs".to_string(),
    ];
    for mode in [&[][..], &["."][..]] {
        let args = |extra: &[&'static str]| {
            let mut args = mode.to_vec();
            args.extend(["--format", "concise", "--preview"]);
            args.extend(extra);
            args
        };
        let (files, stderr) = found(&args(&[]));
        assert_eq!(files, none, "{mode:?} {stderr}");
        let (files, stderr) = found(&args(&["--all-targets"]));
        assert_eq!(files, both, "{mode:?} {stderr}");
    }
    // Named on the command line: linted.
    let (files, stderr) = found(&["tests/cancel.rs", "--format", "concise", "--preview"]);
    assert_eq!(files, vec!["tests/cancel.rs".to_string()], "{stderr}");
}

#[test]
fn syntax_error_in_one_file_does_not_stop_the_others() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "broken.rs", "fn on_cancelled( {\n");
    write(dir.path(), "server.rs", BUGGY);
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    let lines = concise_lines(&stdout);
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("broken.rs:") && lines[0].contains("error[MCP000] [syntax-error]"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("server.rs:") && lines[1].contains("MCP001"),
        "{stdout}"
    );
}

#[test]
fn files_that_cannot_matter_are_not_parsed_unless_all_files_is_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "unrelated.rs", "fn f( {\n");
    write(dir.path(), "server.rs", BUGGY);
    let (_, stdout, _) = lint(dir.path(), &[".", "--format", "concise"]);
    assert!(
        !stdout.contains("unrelated.rs"),
        "the pre-filter skips it: {stdout}"
    );
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--format", "concise", "--all-files"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("unrelated.rs:1:") && stdout.contains("MCP000"),
        "{stdout}"
    );
}

/// `cargo mcp-lint` found on PATH, run by cargo itself.
#[test]
fn runs_as_a_cargo_subcommand() {
    let binary = assert_cmd::cargo::cargo_bin("cargo-mcp-lint");
    let bin_dir: PathBuf = binary
        .parent()
        .expect("binary has a directory")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH joins");
    let ws = workspace();
    let output = support::cargo()
        .args(["mcp-lint", "--format", "concise"])
        .current_dir(ws.path())
        .env("PATH", path)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(concise_lines(&stdout).len(), 1, "{stdout}");
}

/// The protocol rules run only on packages that serve MCP: a workspace's ordinary command-line
/// tool that reads stdin, prints to stdout and builds JSON with `"code": 0` gets none of them.
#[test]
fn protocol_rules_skip_packages_that_do_not_serve_mcp() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"server\", \"tool\"]\nresolver = \"2\"\n",
    );
    let noisy = r#"
//! Not an MCP server: a line tool (its comments name MCP, its code does not serve it).
use std::io::BufRead;

pub fn run() {
    println!("reading lines");
    for line in std::io::stdin().lock().lines() {
        let msg: serde_json::Value = serde_json::from_str(&line.unwrap_or_default()).unwrap_or_default();
        let reply = serde_json::json!({"id": msg["id"], "error": {"code": 0, "message": "none"}});
        println!("{}", serde_json::to_string_pretty(&reply).unwrap_or_default());
    }
}
"#;
    package(root, "tool", "tool");
    write(root, "tool/src/lib.rs", noisy);
    package(root, "server", "server");
    let server = format!(
        "{noisy}\npub fn dispatch(method: &str) -> &'static str {{\n    match method {{\n        \"initialize\" => \"ok\",\n        \"tools/list\" => \"ok\",\n        _ => \"method not found\",\n    }}\n}}\n"
    );
    write(root, "server/src/lib.rs", &server);
    // In preview mode: MCP007 is in preview.
    let (code, stdout, stderr) = lint(root, &["--format", "concise", "--preview"]);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let lines = concise_lines(&stdout);
    assert!(
        lines.iter().all(|l| l.starts_with("server/")),
        "only the server is checked: {stdout}"
    );
    for rule in ["MCP002", "MCP006", "MCP007"] {
        assert!(
            lines.iter().any(|l| l.contains(rule)),
            "{rule} in the server: {stdout}"
        );
    }
}

/// A stdio server whose transport writes pretty-printed JSON: MCP007's shape (the rule is in
/// preview).
const PRETTY_SERVER: &str = r#"
use std::io::BufRead;

fn write_message(message: &serde_json::Value) {
    let line = serde_json::to_string_pretty(message).unwrap_or_default();
    println!("{line}");
}

fn serve() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let request: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        if request["method"] == "tools/list" {
            let id = request["id"].clone();
            write_message(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}));
        }
    }
}
"#;

/// The MCP007 lines of a concise report.
fn mcp007_lines(stdout: &str) -> Vec<&str> {
    concise_lines(stdout)
        .into_iter()
        .filter(|l| l.contains("[MCP007] "))
        .collect()
}

/// The preview warnings on stderr.
fn preview_warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("warning: ") && l.contains("preview"))
        .collect()
}

/// A directory with the pretty-printing server, and the configuration given, if any.
fn pretty_server(config: Option<&str>) -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "server.rs", PRETTY_SERVER);
    if let Some(config) = config {
        write(dir.path(), "mcp-lint.toml", config);
    }
    dir
}

/// MCP007 is in preview: it runs only in preview mode, which `--preview` or `preview = true`
/// turns on and `--no-preview` turns off again (the last of the two flags wins). The runs share
/// the facts cache, so a result of one mode is never reused in the other.
#[test]
fn a_preview_rule_runs_only_in_preview_mode() {
    let dir = pretty_server(None);
    let run = |dir: &Path, flags: &[&str]| {
        let (code, stdout, stderr) = lint(
            dir,
            &[&["server.rs", "--format", "concise"], flags].concat(),
        );
        assert!(preview_warnings(&stderr).is_empty(), "{flags:?}: {stderr}");
        (code, mcp007_lines(&stdout).len(), stdout)
    };
    let (code, found, stdout) = run(dir.path(), &[]);
    assert_eq!((code, found), (0, 0), "not by default: {stdout}");
    let (code, found, stdout) = run(dir.path(), &["--preview"]);
    assert_eq!((code, found), (1, 1), "with --preview: {stdout}");
    assert!(
        stdout.contains("server.rs:5:28: error[MCP007] [stdio-embedded-newline]"),
        "{stdout}"
    );
    let (code, found, stdout) = run(dir.path(), &[]);
    assert_eq!(
        (code, found),
        (0, 0),
        "not by default, cache warm: {stdout}"
    );
    assert_eq!(run(dir.path(), &["-W", "all"]).1, 0, "nor through `all`");
    assert_eq!(run(dir.path(), &["--preview", "--no-preview"]).1, 0);
    assert_eq!(run(dir.path(), &["--no-preview", "--preview"]).1, 1);

    let configured = pretty_server(Some("preview = true\n"));
    assert_eq!(run(configured.path(), &[]).1, 1, "with `preview = true`");
    assert_eq!(
        run(configured.path(), &["--no-preview"]).1,
        0,
        "--no-preview overrides the configuration"
    );
    let off = pretty_server(Some("preview = false\n"));
    assert_eq!(
        run(off.path(), &["--preview"]).1,
        1,
        "and so does --preview"
    );
    assert_eq!(run(off.path(), &[]).1, 0);
}

/// Naming a preview rule without preview mode (by code or name, on the command line or in the
/// configuration) warns once and runs the rest; the rule reports nothing. Allowing it, or
/// naming it in preview mode, does not warn.
#[test]
fn naming_a_preview_rule_without_preview_mode_warns_and_does_not_run_it() {
    let run = |dir: &Path, flags: &[&str]| {
        let (code, stdout, stderr) = lint(
            dir,
            &[&["server.rs", "--format", "concise"], flags].concat(),
        );
        let warnings: Vec<String> = preview_warnings(&stderr)
            .into_iter()
            .map(str::to_string)
            .collect();
        (code, mcp007_lines(&stdout).len(), warnings, stdout)
    };
    let plain = pretty_server(None);
    for flags in [
        &["-W", "MCP007"][..],
        &["-D", "stdio-embedded-newline"],
        &["--deny", "mcp007", "-W", "MCP007"],
    ] {
        let (code, found, warnings, stdout) = run(plain.path(), flags);
        assert_eq!((code, found), (0, 0), "{flags:?}: {stdout}");
        assert_eq!(warnings.len(), 1, "{flags:?}: {warnings:?}");
        assert!(
            warnings[0].contains("`MCP007`") && warnings[0].contains("`--preview`"),
            "{warnings:?}"
        );
    }
    for flags in [&["-A", "MCP007"][..], &["-W", "MCP007", "-A", "MCP007"]] {
        let (_, found, warnings, _) = run(plain.path(), flags);
        assert_eq!((found, warnings.len()), (0, 0), "{flags:?}: {warnings:?}");
    }
    let (code, found, warnings, stdout) = run(plain.path(), &["-W", "MCP007", "--preview"]);
    assert_eq!((code, found, warnings.len()), (1, 1, 0), "{stdout}");
    // In preview mode its level applies: its default, or the one it is given.
    let severity = |flags: &[&str]| {
        let (_, stdout, stderr) = lint(
            plain.path(),
            &[&["server.rs", "--format", "json", "--preview"], flags].concat(),
        );
        let report: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
        let severities: Vec<String> = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["code"] == "MCP007")
            .map(|d| d["severity"].as_str().unwrap_or_default().to_string())
            .collect();
        severities
    };
    assert_eq!(severity(&[]), ["error"]);
    assert_eq!(severity(&["-W", "MCP007"]), ["warning"]);
    assert!(severity(&["-A", "MCP007"]).is_empty());

    let configured = pretty_server(Some("[rules]\nMCP007 = \"warn\"\n"));
    let (code, found, warnings, stdout) = run(configured.path(), &[]);
    assert_eq!((code, found), (0, 0), "{stdout}");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let (_, found, warnings, _) = run(configured.path(), &["-W", "MCP007"]);
    assert_eq!((found, warnings.len()), (0, 1), "one warning per rule");
    let (code, found, warnings, _) = run(configured.path(), &["--preview"]);
    assert_eq!((code, found, warnings.len()), (1, 1, 0));
    let in_override = pretty_server(Some(
        "[[overrides]]\npaths = [\"*.rs\"]\nrules = { stdio-embedded-newline = \"deny\" }\n",
    ));
    let (_, found, warnings, _) = run(in_override.path(), &[]);
    assert_eq!((found, warnings.len()), (0, 1), "named in an override");
}

/// `--list-rules` shows each rule's status; `--explain` says a preview rule is in preview and
/// how to turn preview mode on.
#[test]
fn list_rules_and_explain_show_the_status() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, stdout, stderr) = lint(dir.path(), &["--list-rules"]);
    assert_eq!(code, 0, "{stderr}");
    let header = stdout.lines().next().unwrap_or_default();
    assert!(header.contains("Status"), "{stdout}");
    let row = |code: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(code))
            .unwrap_or_default()
            .split_whitespace()
            .nth(4)
            .unwrap_or_default()
            .to_string()
    };
    // MCP002, MCP003 and MCP004 went to preview in batches 82 and 83 and came back and went
    // again since (docs/ecosystem.md): MCP003 is in preview since batches 110 and 111, MCP002
    // (its shown writes 2 of 3) and MCP006 (0 of 1) since batches 120 and 121, where MCP004
    // (its method-not-found catch-all 11 of 11) was stable again, in preview for batches 122 and
    // 123 (5 of 6), and stable again since batches 126 and 127 (9 of 9).
    for code in ["MCP002", "MCP003", "MCP006", "MCP007"] {
        assert_eq!(row(code), "preview", "{code}: {stdout}");
    }
    for code in ["MCP000", "MCP001", "MCP004", "MCP005", "MCP900", "MCP999"] {
        assert_eq!(row(code), "stable", "{code}: {stdout}");
    }

    let (code, stdout, stderr) = lint(dir.path(), &["--explain", "MCP007"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("- Status: preview"), "{stdout}");
    assert!(
        stdout.contains("`--preview`") && stdout.contains("`preview = true`"),
        "{stdout}"
    );
    let (_, stdout, _) = lint(dir.path(), &["--explain", "MCP001"]);
    assert!(stdout.contains("- Status: stable"), "{stdout}");
}

/// A suppression of a preview rule is moot without preview mode (not reported unused, MCP900),
/// and suppresses it in preview mode.
#[test]
fn a_suppression_of_a_preview_rule_is_not_unused_without_preview_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suppressed = PRETTY_SERVER.replace(
        "    let line = serde_json::to_string_pretty",
        "    // mcp-lint: allow(MCP007) -- a debugging transport\n    let line = serde_json::to_string_pretty",
    );
    assert_ne!(suppressed, PRETTY_SERVER);
    write(dir.path(), "server.rs", &suppressed);
    for flags in [&[][..], &["--preview"]] {
        let (code, stdout, stderr) = lint(
            dir.path(),
            &[&["server.rs", "--format", "concise"], flags].concat(),
        );
        assert_eq!(code, 0, "{flags:?}: {stdout}{stderr}");
        assert!(concise_lines(&stdout).is_empty(), "{flags:?}: {stdout}");
    }
    let unsuppressed = suppressed.replace("allow(MCP007)", "allow(MCP001)");
    write(dir.path(), "server.rs", &unsuppressed);
    let (_, stdout, _) = lint(dir.path(), &["server.rs", "--format", "concise"]);
    assert!(
        stdout.contains("[MCP900] ") && !stdout.contains("[MCP007] "),
        "a suppression of a stable rule that suppresses nothing is still reported: {stdout}"
    );
}

/// By first contact (docs/ecosystem.md, batch 15): a write in a module compiled only with a
/// feature the package's default build leaves off is a preview finding of MCP002, as its twin
/// with the feature on by default is now too (MCP002 is in preview since batches 42 and 43).
#[test]
fn writes_behind_a_feature_off_by_default_run_only_in_preview_mode() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp002");
    let expected = "src/observability.rs:2:5: error[MCP002]";
    for (fixture, by_default) in [
        ("writes_in_a_module_behind_a_feature_off_by_default", false),
        ("writes_in_a_module_behind_a_default_feature", false),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        support::copy_tree(&fixtures.join(fixture), dir.path());
        let run = |preview: &[&str]| {
            let (_, stdout, stderr) = lint(
                dir.path(),
                &[&["src", "--format", "concise", "--no-cache"], preview].concat(),
            );
            format!("{stdout}{stderr}")
        };
        let output = run(&["--preview"]);
        assert!(output.contains(expected), "{fixture} in preview: {output}");
        let output = run(&[]);
        assert_eq!(
            output.contains(expected),
            by_default,
            "{fixture} by default: {output}"
        );
    }
}

/// By first contact (docs/ecosystem.md, batch 60): a dispatcher whose arms are aligned by hand
/// (`"initialize"  =>`), in a module file of a cargo package, is parsed (the pre-filter, which
/// decides which of the tree's files are parsed, finds such arms), in a default run too.
#[test]
fn a_dispatcher_with_arms_aligned_by_hand_is_parsed() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp004/catch_all_of_arms_aligned_by_hand");
    let dir = tempfile::tempdir().expect("temp dir");
    support::copy_tree(&fixture, dir.path());
    for flags in [&["--preview"][..], &[][..]] {
        let (_, stdout, stderr) = lint(
            dir.path(),
            &[&["--format", "concise", "--no-cache"][..], flags].concat(),
        );
        assert!(
            concise_lines(&stdout)
                .iter()
                .any(|l| l.contains("src/rpc.rs:11:9: error[MCP004]")),
            "{flags:?}: {stdout}{stderr}"
        );
    }
}

/// By first contact (docs/ecosystem.md, batches 22 and 23): a server the integration tests start,
/// kept under `tests/` and declared as a `[[bin]]` so that cargo builds it for them, is test code:
/// no rule reports it, in cargo mode or path mode. Its twin, the same server declared from
/// `src/bin/`, is a program of the product and is reported.
#[test]
fn a_test_fixture_server_declared_as_a_bin_is_test_code() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture-crates/test-fixture-bin");
    let expected = "bad_server.rs:16:13: error[MCP004]";
    for as_a_product in [false, true] {
        let dir = tempfile::tempdir().expect("temp dir");
        support::copy_tree(&fixture, dir.path());
        if as_a_product {
            let manifest = dir.path().join("Cargo.toml");
            let text = std::fs::read_to_string(&manifest).expect("manifest");
            support::write(
                &manifest,
                &text.replace("tests/fixtures/bad_server.rs", "src/bin/bad_server.rs"),
            );
            std::fs::create_dir_all(dir.path().join("src/bin")).expect("src/bin");
            std::fs::rename(
                dir.path().join("tests/fixtures/bad_server.rs"),
                dir.path().join("src/bin/bad_server.rs"),
            )
            .expect("move the server");
        }
        for mode in [&[][..], &["."][..]] {
            let (_, stdout, stderr) = lint(
                dir.path(),
                &[mode, &["--format", "concise", "--no-cache", "--preview"]].concat(),
            );
            let lines = concise_lines(&stdout);
            if as_a_product {
                assert!(
                    lines.iter().any(|l| l.contains(expected)),
                    "{mode:?}: {stdout}{stderr}"
                );
            } else {
                assert!(lines.is_empty(), "{mode:?}: {stdout}{stderr}");
            }
        }
    }
}

/// The writes shown to run whenever the program serves stdio (issue 32): a logger before
/// `main`'s `match` and a banner in its serving arm before the serve site are reported with no
/// preview note. MCP002 is in preview since batches 120 and 121: in preview mode only.
#[test]
fn mcp002_reports_the_writes_shown_to_run_whenever_the_program_serves_without_a_note() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp002");
    let name = "banner_in_the_serving_arm_before_its_serve_site.rs";
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(fixtures.join(name), dir.path().join(name)).expect("copy the fixture");
    let run = |preview: &[&str]| {
        let (_, stdout, _) = lint(
            dir.path(),
            &[&[name, "--format", "concise", "--no-cache"][..], preview].concat(),
        );
        concise_lines(&stdout)
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let in_preview = run(&["--preview"]);
    for expected in [
        "banner_in_the_serving_arm_before_its_serve_site.rs:24:5: error[MCP002]",
        "banner_in_the_serving_arm_before_its_serve_site.rs:27:13: error[MCP002]",
    ] {
        assert!(
            in_preview.iter().any(|l| l.starts_with(expected)),
            "{expected}: {in_preview:?}"
        );
    }
    assert_eq!(in_preview.len(), 2, "{in_preview:?}");
    assert!(run(&[]).is_empty());
    let (_, json, _) = lint(
        dir.path(),
        &[name, "--format", "json", "--no-cache", "--preview"],
    );
    assert!(
        json.contains("MCP002") && !json.contains("preview:"),
        "{json}"
    );
}

/// New shapes of stable rules start in preview (issue 13): MCP001's shape C through a token registry or a helper's write, MCP002's writer chosen by a branch; a
/// finding whose premise is not shown (issue 32): MCP001's returned reply written in a branch
/// that tests something else; and shapes whose first contact was under 95% (issue 32): MCP002's
/// print in a function called before serving starts, MCP003's notification arms and catch-alls,
/// and (batch 14) MCP002 in a client whose own-stdio transport is one arm of a `match`, and
/// (batch 15) MCP002 in a branch a test of whether stdout is a terminal chooses, and (batches 15
/// and 16) MCP003's `notifications/` prefix test.
/// Each fixture, copied out of this package (whose `tests/` would make it test code), reports
/// its finding in preview mode only. MCP003's method-not-found catch-all of a dispatcher that
/// messages come to, in preview with the rule after batches 34 to 37 and again after batches 58
/// and 59, is stable again since batches 60 and 61 (5 of 5): reported by default (the rule was
/// in preview from batches 82 and 83 to batches 96 and 97, 8 of 8; its catch-all that answers
/// under a condition of its own is preview only). (Batches 90
/// and 91) MCP004's catch-all that hands the method to a call before answering method-not-found,
/// and its catch-all that answers nothing (a new shape).
#[test]
fn new_shapes_of_stable_rules_run_only_in_preview_mode() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let cases: [(&[&str], &[&str], &str); 30] = [
        // MCP003's catch-all that answers only under a condition of its own (batch 54's
        // mcp-routing, batch 93's ArcartX: false).
        (
            &["mcp003/catch_all_that_answers_under_a_condition_of_its_own.rs"],
            &["catch_all_that_answers_under_a_condition_of_its_own.rs"],
            "catch_all_that_answers_under_a_condition_of_its_own.rs:19:14: error[MCP003]",
        ),
        (
            &["mcp003/catch_all_that_answers_in_one_branch_of_its_own_test.rs"],
            &["catch_all_that_answers_in_one_branch_of_its_own_test.rs"],
            "catch_all_that_answers_in_one_branch_of_its_own_test.rs:21:14: error[MCP003]",
        ),
        // MCP001's response returned on a cancel path to a caller that writes it (batches 102
        // and 103: 0 of 1, PhiSHRI's caller drops what a message without an `id` gets).
        (
            &["mcp001/returned_option_written_by_caller.rs"],
            &["returned_option_written_by_caller.rs"],
            "returned_option_written_by_caller.rs:22:24: error[MCP001]",
        ),
        // MCP001's cancel path known only by the name of a method nothing calls, answering
        // through another value than its own (batches 94 and 95: cydonia, false).
        (
            &["mcp001/cancel_method_answering_a_pending_request_it_holds.rs"],
            &["cancel_method_answering_a_pending_request_it_holds.rs"],
            "cancel_method_answering_a_pending_request_it_holds.rs:34:13: error[MCP001]",
        ),
        // MCP004's catch-all whose `Err` no caller in the crate answers (a new shape).
        (
            &["mcp004/catch_all_err_returned_by_a_public_dispatcher.rs"],
            &["catch_all_err_returned_by_a_public_dispatcher.rs"],
            "catch_all_err_returned_by_a_public_dispatcher.rs:42:13: error[MCP004]",
        ),
        // MCP004's catch-all that answers nothing (a new shape).
        (
            &["mcp004/catch_all_that_answers_nothing.rs"],
            &["catch_all_that_answers_nothing.rs"],
            "catch_all_that_answers_nothing.rs:21:13: error[MCP004]",
        ),
        // MCP004's catch-all that hands the method to a call first (batches 90 and 91).
        (
            &["mcp004/catch_all_that_hands_the_method_to_its_server_first.rs"],
            &["catch_all_that_hands_the_method_to_its_server_first.rs"],
            "catch_all_that_hands_the_method_to_its_server_first.rs:23:9: error[MCP004]",
        ),
        // MCP001's shape B through a helper known as a cancel hook by its name only (batch 58;
        // kept out of `tests/fixtures`, whose rename variant would take the name away).
        (
            &[
                "../fixture-crates/shape-b-named-hook/tools.rs",
                "../fixture-crates/shape-b-named-hook/mcp-lint.toml",
            ],
            &["tools.rs"],
            "tools.rs:19:12: error[MCP001]",
        ),
        (
            &["mcp001/shape_c_token_registry.rs"],
            &["shape_c_token_registry.rs"],
            "shape_c_token_registry.rs:40:17: error[MCP001]",
        ),
        (
            &["mcp001/returned_reply_guarded_write.rs"],
            &["returned_reply_guarded_write.rs"],
            "returned_reply_guarded_write.rs:15:25: error[MCP001]",
        ),
        (
            &["mcp002/match_bound_writer.rs"],
            &["match_bound_writer.rs"],
            "match_bound_writer.rs:18:5: error[MCP002]",
        ),
        // By first contact (docs/ecosystem.md, batches 6 and 7): a print before the program
        // starts serving, and MCP003's dispatcher arms.
        (
            &["mcp002/banner_printed_by_a_helper_before_serving.rs"],
            &["banner_printed_by_a_helper_before_serving.rs"],
            "banner_printed_by_a_helper_before_serving.rs:9:5: error[MCP002]",
        ),
        (
            &["mcp003/notification_arm_answers.rs"],
            &["notification_arm_answers.rs"],
            "notification_arm_answers.rs:11:45: error[MCP003]",
        ),
        // By first contact (docs/ecosystem.md, batch 14).
        (
            &["mcp002/client_on_own_stdio_chosen_by_a_match.rs"],
            &["client_on_own_stdio_chosen_by_a_match.rs"],
            "client_on_own_stdio_chosen_by_a_match.rs:30:9: error[MCP002]",
        ),
        // By first contact (docs/ecosystem.md, batch 15).
        (
            &["mcp002/logger_chosen_by_a_terminal_test.rs"],
            &["logger_chosen_by_a_terminal_test.rs"],
            "logger_chosen_by_a_terminal_test.rs:22:9: error[MCP002]",
        ),
        // By first contact (docs/ecosystem.md, batches 15 and 16).
        (
            &["mcp003/prefix_test.rs"],
            &["prefix_test.rs"],
            "prefix_test.rs:7:8: warning[MCP003]",
        ),
        // By first contact (docs/ecosystem.md, batch 24, found by the mends after batch 27).
        (
            &["mcp002/print_behind_a_global_silence_flag.rs"],
            &["print_behind_a_global_silence_flag.rs"],
            "print_behind_a_global_silence_flag.rs:16:9: error[MCP002]",
        ),
        // By first contact (docs/ecosystem.md, batch 61): a progress call by its name to the
        // crate's own function, not shown to send.
        (
            &["mcp005/progress_by_name_to_an_own_function_that_stores_a_snapshot.rs"],
            &["progress_by_name_to_an_own_function_that_stores_a_snapshot.rs"],
            "progress_by_name_to_an_own_function_that_stores_a_snapshot.rs:25:13: warning[MCP005]",
        ),
        // A new shape (docs/ecosystem.md, batch 60): a dispatcher over an `Option` of the
        // variants a conversion reads methods into, whose catch-all is the variant it makes of
        // every other method.
        (
            &["mcp004/catch_all_variant_a_conversion_makes.rs"],
            &["catch_all_variant_a_conversion_makes.rs"],
            "catch_all_variant_a_conversion_makes.rs:32:9: error[MCP004]",
        ),
        // By first contact (docs/ecosystem.md, batch 31).
        (
            &["mcp002/print_behind_a_thread_local_quiet_flag.rs"],
            &["print_behind_a_thread_local_quiet_flag.rs"],
            "print_behind_a_thread_local_quiet_flag.rs:25:5: error[MCP002]",
        ),
        // By first contact (docs/ecosystem.md, batches 30 and 32): a `bool` field.
        (
            &["mcp002/print_behind_a_quiet_field_of_a_builder.rs"],
            &["print_behind_a_quiet_field_of_a_builder.rs"],
            "print_behind_a_quiet_field_of_a_builder.rs:18:13: error[MCP002]",
        ),
        (
            &["mcp002/print_behind_a_quiet_field_of_a_builder.rs"],
            &["print_behind_a_quiet_field_of_a_builder.rs"],
            "print_behind_a_quiet_field_of_a_builder.rs:30:9: error[MCP002]",
        ),
        // A new shape (docs/ecosystem.md, batch 35).
        (
            &["mcp004/catch_all_that_refuses_with_an_http_status.rs"],
            &["catch_all_that_refuses_with_an_http_status.rs"],
            "catch_all_that_refuses_with_an_http_status.rs:16:9: error[MCP004]",
        ),
        // A catch-all of a dispatcher that no message is shown to reach unchosen (mends after
        // batches 36 and 37, a premise not shown; MCP003's catch-all of a dispatcher messages
        // come to is stable again since batches 60 and 61, below), and MCP006's code of MCP's
        // own range while 2025-11-25 is targeted too (batch 36: 0 of 1).
        (
            &["mcp003/catch_all_of_a_dispatcher_of_tools_alone.rs"],
            &["catch_all_of_a_dispatcher_of_tools_alone.rs"],
            "catch_all_of_a_dispatcher_of_tools_alone.rs:21:18: error[MCP003]",
        ),
        // A send by its name only (docs/ecosystem.md, batch 39): the crate's `reply` sends no
        // response it builds.
        (
            &["mcp001/sink_named_method_that_takes_a_sender.rs"],
            &["sink_named_method_that_takes_a_sender.rs"],
            "sink_named_method_that_takes_a_sender.rs:32:13: error[MCP001]",
        ),
        // A send by its name only whose function's body holds a send of a call's value that
        // the crate graph does not show (docs/ecosystem.md, batch 86: moon's `send_result`;
        // kept out of `tests/fixtures`, whose rename variant would take the name away).
        (
            &["../fixture-crates/sink-named-send-result/sink_named_function_that_hands_on_a_job.rs"],
            &["sink_named_function_that_hands_on_a_job.rs"],
            "sink_named_function_that_hands_on_a_job.rs:61:13: error[MCP001]",
        ),
        // A write after an early exit that tests the written value (docs/ecosystem.md, batch
        // 38): that it runs for the cancel arm's value is not shown.
        (
            &["mcp001/returned_reply_written_after_a_test_of_it.rs"],
            &["returned_reply_written_after_a_test_of_it.rs"],
            "returned_reply_written_after_a_test_of_it.rs:36:20: error[MCP001]",
        ),
        (
            &["mcp006/range_code_while_both_versions_are_targeted.rs"],
            &["range_code_while_both_versions_are_targeted.rs"],
            "range_code_while_both_versions_are_targeted.rs:9:30: error[MCP006]",
        ),
        // MCP002's writes not shown to run whenever the program serves (issue 32, MCP002
        // stable again for the writes that are): one in a branch of a flag of `main`'s own,
        // one before a call that serves stdio only when a configuration's string says so.
        (
            &["mcp002/banner_before_a_serve_whose_transport_a_configuration_names.rs"],
            &["banner_before_a_serve_whose_transport_a_configuration_names.rs"],
            "banner_before_a_serve_whose_transport_a_configuration_names.rs:37:9: error[MCP002]",
        ),
        (
            &["mcp002/banner_before_a_serve_whose_transport_a_configuration_names.rs"],
            &["banner_before_a_serve_whose_transport_a_configuration_names.rs"],
            "banner_before_a_serve_whose_transport_a_configuration_names.rs:39:5: error[MCP002]",
        ),
    ];
    for (files, args, expected) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        for file in files {
            let from = fixtures.join(file);
            let name = from.file_name().expect("a file name");
            std::fs::copy(&from, dir.path().join(name)).expect("copy the fixture");
        }
        let run = |preview: &[&str]| {
            let (_, stdout, stderr) = lint(
                dir.path(),
                &[args, &["--format", "concise", "--no-cache"], preview].concat(),
            );
            format!("{stdout}{stderr}")
        };
        let output = run(&["--preview"]);
        assert!(output.contains(expected), "{expected} in preview: {output}");
        let output = run(&[]);
        assert!(
            !output.contains(expected),
            "{expected} by default: {output}"
        );
    }
}

/// MCP001's shape B through helpers (a handler returns a helper's value from its cancel branch,
/// under an SDK that sends it) left preview by first contact in batches 84 and 85 (8 of 8,
/// docs/ecosystem.md): reported by default, in the helper.
#[test]
fn shape_b_through_helpers_is_reported_by_default() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp001/shape_b_rmcp_2_1");
    let dir = tempfile::tempdir().expect("temp dir");
    for file in ["helpers.rs", "mcp-lint.toml"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).expect("copy the fixture");
    }
    let (_, stdout, stderr) = lint(
        dir.path(),
        &["helpers.rs", "--format", "concise", "--no-cache"],
    );
    assert!(
        stdout.contains("helpers.rs:41:39: error[MCP001]"),
        "{stdout}{stderr}"
    );
}

/// MCP003's shape stable from batches 60 to 81, from batches 96 and 97 to batches 100 and 101,
/// and from batches 108 and 109 to batches 110 and 111 (docs/ecosystem.md): the method-not-found
/// catch-all of a dispatcher that messages come to, like the notification arm of the same kind
/// of dispatcher, is reported in preview mode only (MCP003 is in preview again since batches 110
/// and 111).
#[test]
fn the_catch_all_that_notifications_reach_is_reported_in_preview_mode() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let dir = tempfile::tempdir().expect("temp dir");
    for name in [
        "catch_all_answers_notifications.rs",
        "notification_arm_answers.rs",
    ] {
        std::fs::copy(fixtures.join("mcp003").join(name), dir.path().join(name))
            .expect("copy the fixture");
    }
    for (flags, reported) in [(&["--preview"][..], true), (&[][..], false)] {
        let (_, stdout, stderr) = lint(
            dir.path(),
            &[
                &[
                    "catch_all_answers_notifications.rs",
                    "notification_arm_answers.rs",
                    "--format",
                    "concise",
                    "--no-cache",
                ][..],
                flags,
            ]
            .concat(),
        );
        let output = format!("{stdout}{stderr}");
        for expected in [
            "catch_all_answers_notifications.rs:18:14: error[MCP003]",
            "notification_arm_answers.rs:11:45: error[MCP003]",
        ] {
            assert_eq!(output.contains(expected), reported, "{flags:?}: {output}");
        }
    }
}
