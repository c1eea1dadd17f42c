//! The example server must compile: it is the project's demo and the README's first command.
//!
//! It is checked offline: its dependencies are dev-dependencies of this crate at the versions of
//! its own Cargo.lock, so `cargo test --locked` has downloaded them already.

use std::collections::BTreeSet;
use std::path::Path;

mod support;

const EXAMPLE: &str = "examples/seed-server";

#[test]
fn seed_server_example_compiles() {
    support::run_ok(
        support::cargo()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "check",
                "--locked",
                "--offline",
                "--quiet",
                "--manifest-path",
                "examples/seed-server/Cargo.toml",
                "--target-dir",
                "target/seed-server-check",
            ]),
    );
}

/// Every package the example's Cargo.lock pins is one this crate builds for the host (so `cargo
/// test` downloaded it and the offline check above can find it).
#[test]
fn the_examples_dependencies_are_downloaded_by_cargo_test() {
    let lock_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(EXAMPLE)
        .join("Cargo.lock");
    let lock: toml::Value = toml::from_str(
        &std::fs::read_to_string(&lock_path).expect("the example's Cargo.lock is readable"),
    )
    .expect("the example's Cargo.lock is TOML");
    let pinned: BTreeSet<(String, String)> = lock["package"]
        .as_array()
        .expect("[[package]] entries")
        .iter()
        .filter(|p| p.get("source").is_some())
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                p["version"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(pinned.iter().any(|(name, _)| name == "tokio"), "{pinned:?}");
    let metadata = support::metadata();
    let built: BTreeSet<(String, String)> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                p["version"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let missing: Vec<String> = pinned
        .difference(&built)
        .map(|(name, version)| format!("{name} {version}"))
        .collect();
    assert!(
        missing.is_empty(),
        "{EXAMPLE}/Cargo.lock pins packages this crate's graph lacks: {missing:?}; make them \
         agree (a dev-dependency in Cargo.toml, or `cargo update -p NAME --precise VERSION` on \
         either side)"
    );
}

/// The example fixed by `--fix` still compiles without a warning (a `-D warnings` build takes
/// it): a safe fix that removes a send also removes the `let`s only the send used, and renames
/// the parameters only it used `_name`, as rustc suggests.
#[test]
fn the_fixed_example_compiles_without_warnings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("seed-server");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);
    for part in ["Cargo.toml", "Cargo.lock"] {
        std::fs::create_dir_all(&copy).expect("mkdir");
        std::fs::copy(example.join(part), copy.join(part)).expect("copy");
    }
    support::copy_tree(&example.join("src"), &copy.join("src"));
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/seed-server-check");
    let check = || {
        let output = support::run_ok(
            support::cargo()
                .current_dir(&copy)
                .args(["check", "--locked", "--offline", "--target-dir"])
                .arg(&target),
        );
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let before = check();
    assert!(!before.contains("warning"), "{before}");
    let (code, stdout, stderr) = support::mcp_lint(
        &copy,
        &["--no-cache", "--fix", "--allow-no-vcs", "--allow-dirty"],
    );
    assert!(code == 0 || code == 1, "{stdout}{stderr}");
    assert!(stderr.contains("Applied"), "{stderr}");
    let after = check();
    assert!(
        !after.contains("warning"),
        "the fixed example warns:\n{after}"
    );
}
