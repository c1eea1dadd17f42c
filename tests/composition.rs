//! A package's findings do not depend on what else is linted: the same for the package alone,
//! with its workspace, and from a directory above the workspace, in path mode and in cargo mode.
//! Path mode groups files into packages by their nearest `Cargo.toml` and into targets by
//! cargo's layout, so a call in one package never resolves to another package's function and
//! one package's server does not make its neighbours servers. The one exception is a library
//! the package depends on by `path`, linted with it: what a function of that library does
//! (serve stdio) is known where the package calls it; linted alone, the package gets no finding
//! that would need it.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `(path relative to the workspace, line, code)` of every finding.
type Findings = BTreeSet<(String, u64, String)>;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the directory");
    std::fs::write(path, text).expect("write the file");
}

/// A workspace of two packages: a stdio server whose `main` calls `banner()`, and a CLI whose
/// own `banner()` prints; plus an example of the server's package that prints and never serves.
fn workspace(parent: &Path) -> PathBuf {
    let ws = parent.join("ws");
    write(
        &ws,
        "Cargo.toml",
        "[workspace]\nmembers = [\"server\", \"cli\"]\nresolver = \"2\"\n",
    );
    write(
        &ws,
        "server/Cargo.toml",
        "[package]\nname = \"server\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"3\"\n",
    );
    write(
        &ws,
        "server/src/main.rs",
        r#"use rmcp::{transport::stdio, ServiceExt};

#[derive(Clone)]
struct Server;

impl rmcp::ServerHandler for Server {}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("server ready");
    Server.serve(stdio()).await?.waiting().await?;
    Ok(())
}
"#,
    );
    write(
        &ws,
        "server/examples/listing.rs",
        r#"fn main() {
    for tool in ["search", "read"] {
        println!("{tool}");
    }
}
"#,
    );
    write(
        &ws,
        "cli/Cargo.toml",
        "[package]\nname = \"cli\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &ws,
        "cli/src/main.rs",
        r#"fn main() {
    banner();
}

fn banner() {
    println!("cli 0.1.0");
}
"#,
    );
    ws
}

fn findings(cwd: &Path, args: &[&str], ws: &Path) -> Findings {
    let output = support::run_ok(
        Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
            .current_dir(cwd)
            // MCP002, the finding compared, is in preview.
            .args(["--no-cache", "--preview", "--format", "json", "--exit-zero"])
            .args(args),
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the JSON report parses");
    let ws = ws.canonicalize().expect("the workspace exists");
    report["diagnostics"]
        .as_array()
        .expect("a list of diagnostics")
        .iter()
        .map(|d| {
            let path = cwd
                .join(d["path"].as_str().expect("a path"))
                .canonicalize()
                .expect("the reported file exists");
            let relative = path
                .strip_prefix(&ws)
                .expect("a file of the workspace")
                .to_string_lossy()
                .replace('\\', "/");
            (
                relative,
                d["span"]["start"]["line"].as_u64().expect("a line"),
                d["code"].as_str().expect("a code").to_string(),
            )
        })
        .collect()
}

fn of_package(findings: &Findings, package: &str) -> Findings {
    findings
        .iter()
        .filter(|(path, _, _)| path.starts_with(&format!("{package}/")))
        .cloned()
        .collect()
}

#[test]
fn a_packages_findings_are_the_same_alone_in_its_workspace_and_from_above_in_both_modes() {
    let parent = tempfile::tempdir().expect("a temporary directory");
    let ws = workspace(parent.path());
    let expected: Findings = [("server/src/main.rs".to_string(), 10, "MCP002".to_string())]
        .into_iter()
        .collect();

    let server_alone_path = findings(&ws.join("server"), &["."], &ws);
    let cli_alone_path = findings(&ws.join("cli"), &["."], &ws);
    let workspace_path = findings(&ws, &["."], &ws);
    let above_path = findings(parent.path(), &["ws"], &ws);
    let server_alone_cargo = findings(&ws.join("server"), &[], &ws);
    let cli_alone_cargo = findings(&ws.join("cli"), &[], &ws);
    let workspace_cargo = findings(&ws, &["--workspace"], &ws);
    let above_cargo = findings(
        parent.path(),
        &["--manifest-path", "ws/Cargo.toml", "--workspace"],
        &ws,
    );

    // The server's banner, printed on the way to serving stdio, is the one finding; the CLI's
    // banner of the same name and the example's listing are not servers' output.
    for (name, run) in [
        ("path mode, the server alone", &server_alone_path),
        ("path mode, the workspace", &workspace_path),
        ("path mode, from above", &above_path),
        ("cargo mode, the server alone", &server_alone_cargo),
        ("cargo mode, the workspace", &workspace_cargo),
        ("cargo mode, from above", &above_cargo),
    ] {
        assert_eq!(of_package(run, "server"), expected, "{name}");
        assert_eq!(of_package(run, "cli"), Findings::new(), "{name}");
    }
    for (name, run) in [
        ("path mode, the CLI alone", &cli_alone_path),
        ("cargo mode, the CLI alone", &cli_alone_cargo),
    ] {
        assert_eq!(run, &Findings::new(), "{name}");
    }
}

/// A workspace whose CLI serves stdio through its server library (a path dependency): the CLI's
/// `main` installs a stdout logger, then calls the library's `stdio::run`, which serves.
fn workspace_serving_through_a_library(parent: &Path) -> PathBuf {
    let ws = parent.join("ws");
    write(
        &ws,
        "Cargo.toml",
        "[workspace]\nmembers = [\"server\", \"cli\"]\nresolver = \"2\"\n",
    );
    write(
        &ws,
        "server/Cargo.toml",
        "[package]\nname = \"notes-server\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"3\"\n",
    );
    write(&ws, "server/src/lib.rs", "pub mod stdio;\n");
    write(
        &ws,
        "server/src/stdio.rs",
        r#"use rmcp::{transport::stdio, ServiceExt};

#[derive(Clone)]
struct Notes;

impl rmcp::ServerHandler for Notes {}

pub async fn run() -> anyhow::Result<()> {
    Notes.serve(stdio()).await?.waiting().await?;
    Ok(())
}
"#,
    );
    write(
        &ws,
        "cli/Cargo.toml",
        "[package]\nname = \"notes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nnotes-server = { path = \"../server\" }\n",
    );
    write(
        &ws,
        "cli/src/main.rs",
        r#"#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt().init();
    notes_server::stdio::run().await
}
"#,
    );
    ws
}

#[test]
fn a_package_linted_with_the_library_it_serves_through_gets_its_findings_in_both_modes() {
    let parent = tempfile::tempdir().expect("a temporary directory");
    let ws = workspace_serving_through_a_library(parent.path());
    let expected: Findings = [("cli/src/main.rs".to_string(), 3, "MCP002".to_string())]
        .into_iter()
        .collect();
    // With its library, the CLI is known to serve stdio: its logger writes to the protocol
    // stream. Alone, what the library does is unknown, and nothing is reported (silence, never
    // a guess).
    for (name, run) in [
        ("path mode, the workspace", findings(&ws, &["."], &ws)),
        (
            "path mode, from above",
            findings(parent.path(), &["ws"], &ws),
        ),
        (
            "cargo mode, the workspace",
            findings(&ws, &["--workspace"], &ws),
        ),
    ] {
        assert_eq!(of_package(&run, "cli"), expected, "{name}");
        assert_eq!(of_package(&run, "server"), Findings::new(), "{name}");
    }
    for (name, run) in [
        (
            "path mode, the CLI alone",
            findings(&ws.join("cli"), &["."], &ws),
        ),
        (
            "cargo mode, the CLI alone",
            findings(&ws.join("cli"), &[], &ws),
        ),
    ] {
        assert_eq!(run, Findings::new(), "{name}");
    }
}
