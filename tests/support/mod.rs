//! What the integration tests share: each run of another program (cargo, git) shows its own
//! stderr when it fails, and none needs the network; fixtures are copied out of this package.

// Each test crate uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod fixture;

/// The cargo that runs the tests (`$CARGO`), else `cargo` on the PATH.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Run `command` and return its output; panic, with the command, its exit status, its stderr and
/// its stdout, when it cannot start or does not succeed.
pub fn run_ok(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("could not run {shown}: {error}"));
    assert!(
        output.status.success(),
        "{shown} failed ({}):\n--- stderr\n{}\n--- stdout\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    output
}

/// Run the binary under test in `dir` with `args` (outside GitHub Actions, whose annotations
/// would be added to the report): its exit status, stdout and stderr.
pub fn mcp_lint(dir: &Path, args: &[&str]) -> (i32, String, String) {
    use assert_cmd::cargo::CommandCargoExt;
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary is built")
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The host's target triple, from `cargo -vV`'s `host: ` line.
pub fn host() -> String {
    let output = run_ok(cargo().arg("-vV"));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(|host| host.trim().to_string())
        .unwrap_or_else(|| panic!("`cargo -vV` names no host:\n{text}"))
}

/// `cargo metadata` of this package, offline and for the host platform only: the packages
/// `cargo test --locked` itself downloaded are all it needs (without `--filter-platform`, cargo
/// wants the manifests of other platforms' dependencies, which a fresh cache does not hold).
pub fn metadata() -> serde_json::Value {
    let output = run_ok(
        cargo()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "metadata",
                "--format-version",
                "1",
                "--offline",
                "--locked",
                "--filter-platform",
            ])
            .arg(host()),
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "`cargo metadata` printed no JSON ({error}); its stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Run git in `dir` with a fixed identity and no signing, whatever the user's configuration;
/// panic with git's stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) -> Output {
    run_ok(
        Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args),
    )
}

/// Copy a directory tree: the fixtures, out of this package, whose `tests/` would make them test
/// code in path mode.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for entry in std::fs::read_dir(from).expect("read a directory") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy a file");
        }
    }
}

/// The SARIF 2.1.0 schema as the `serde-sarif` crate's sources carry it (a dev-dependency, so
/// `cargo test` downloaded it).
pub fn sarif_schema() -> serde_json::Value {
    let metadata = metadata();
    let manifest = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|p| p["name"] == "serde-sarif"))
        .and_then(|p| p["manifest_path"].as_str())
        .map(PathBuf::from)
        .expect("serde-sarif is a dev-dependency");
    let schema = manifest
        .parent()
        .unwrap_or(Path::new("."))
        .join("src/schema.json");
    let text = std::fs::read_to_string(schema).expect("schema is readable");
    // The schema's `run.language` pattern has a lone `]`, which ECMAScript regular expressions
    // (the schema's dialect) read as a literal and Rust's regex engine rejects: escape it.
    let text = text.replace("{2}-[a-zA-Z]{2}]?$", "{2}-[a-zA-Z]{2}\\\\]?$");
    serde_json::from_str(&text).expect("schema is JSON")
}

/// Write `text` to `path`, making its directory first.
pub fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("make a directory");
    }
    std::fs::write(path, text).expect("write a file");
}

/// This repository's `action.yml`.
pub fn action() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml"))
        .expect("action.yml")
}

/// The step of `action.yml` (from its `- name:`) that holds `needle`.
pub fn action_step(needle: &str) -> String {
    action()
        .split("- name:")
        .find(|step| step.contains(needle))
        .unwrap_or_else(|| panic!("no step of action.yml holds {needle:?}"))
        .to_string()
}

/// A unit of the given files, as path mode makes one of files outside a package: no module tree
/// followed, not a cargo target (the other fields as [`LintUnit::default`]). Tests set what
/// else they need with `LintUnit { follow_modules: true, ..unit(..) }`.
pub fn unit(
    name: &str,
    files: Vec<cargo_mcp_lint::unit::UnitFile>,
) -> cargo_mcp_lint::unit::LintUnit {
    cargo_mcp_lint::unit::LintUnit {
        name: name.into(),
        files,
        ..Default::default()
    }
}

/// A file of a unit, its module path taken from its file name as path mode takes it.
pub fn unit_file(path: &Path) -> cargo_mcp_lint::unit::UnitFile {
    cargo_mcp_lint::unit::UnitFile {
        module: cargo_mcp_lint::discovery::path_mode::module_of(path).into(),
        path: path.into(),
        owns_directory: false,
    }
}

/// A crate's root file: the root module, owning its directory.
pub fn root_file(path: &Path) -> cargo_mcp_lint::unit::UnitFile {
    cargo_mcp_lint::unit::UnitFile {
        module: Vec::new().into(),
        path: path.into(),
        owns_directory: true,
    }
}
